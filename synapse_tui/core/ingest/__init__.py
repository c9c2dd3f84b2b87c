"""How facts get in: the interchange format, signatures, the sample, other systems' adapters."""
