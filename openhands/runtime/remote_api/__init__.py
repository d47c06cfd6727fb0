"""A Runtime API service (remote-runtime.md §4) over a pool of Docker engines; see README.md."""
