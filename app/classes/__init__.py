"""A live class: predictions from every phone, tallied for the projector. Everything of it
is here but its templates (`templates/class/`) and scripts (`static/js/class.js`, `host.js`).

- the service: `service.ClassRoom` is the one interface (`app.state.classes`); `errors` are
  its refusals, `records` what it answers; `store` every query, over `database` (SQLite or
  PostgreSQL) with the schema of `migrations`; `codes` the join code and the host key;
  `limits` the rate limits; `origin` the cross-site rule for state-changing requests;
- the contract: `contract`, what the pages and the browser both rely on (keys, intervals,
  the presets a class can be asked);
- the answers: `api` the JSON API, with `models` its payloads and answers; `pages` the
  instructor's and the projector's pages; `learner` a learner without JavaScript; `views`
  the dashboard's view models and the reveal's verdicts.
"""
