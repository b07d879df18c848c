"""Fault suite: real servers and a real redis-server under SIGSTOP, restarts, maxmemory, load."""
