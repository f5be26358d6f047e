"""The station itself: speculative decoding, one page of panels over the witness.

- `services.Witness`: the one door to the witness, with its caches (every result a view
  shows, and every comparison of two states);
- `state`: the station's state as a URL (parsing, options, presets, interventions);
- `views`: witness results turned into display values, one small view model per panel;
  their sentences come from `app/words`;
- `routes`: the page and its fragments, the step-through, the race, the roofline, the
  route files and the JSON API.

Beside it in `app/`: the live class (`classes`), the study card (`study`), the process edge
(`edge`), the rendering pipeline (`rendering`), the generated contract (`contract`) and
the words (`words`).
"""
