"""One render pipeline for every page and fragment: templates, the render cache, gzip,
headers, garbage collection."""
