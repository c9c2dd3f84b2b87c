"""How a memory is judged: the scored view, triage, queues, suspects, the filter language."""
