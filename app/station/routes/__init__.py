"""The station's HTTP routes: the page and its fragments, the step-through, the race, the
roofline, the route files, the JSON API."""
