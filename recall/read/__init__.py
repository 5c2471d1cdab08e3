"""The read path: fusion, recall policy and the auto-recall bundle."""
