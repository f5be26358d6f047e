"""What other stations and the browser rely on: route ids and keys, the route-memory
schema, the manifest and the checkpoint."""
