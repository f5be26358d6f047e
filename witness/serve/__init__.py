"""The served request: `chain` (the chain's one serve loop, compiled), `request` (the request
on screen and its passes), `paths` (many requests' passes at once), `accounting` (its totals
and price), `check` (its exact distribution check), `detail` (what its trace carries for
display)."""
