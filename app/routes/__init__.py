"""HTTP routes: pages and fragments, the step-through, the study card and worksheet, the
route files, the JSON API."""
