"""The process model: --workers (forked servers on one port) and children that die with their parent."""
