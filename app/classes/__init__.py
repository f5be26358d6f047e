"""A live class: predictions from every phone, tallied for the projector.

`service.ClassRoom` is the interface (`app.state.classes`); `errors` are its refusals;
`records` what it answers; `store` every query, over `database` (SQLite or PostgreSQL) with
the schema of `migrations`; `codes` the join code and the host key; `limits` the rate
limits; `origin` the cross-site rule for state-changing requests; `models` the JSON API's
payloads and answers (`app.routes.classes`).
"""
