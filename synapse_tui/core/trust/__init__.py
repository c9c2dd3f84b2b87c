"""How a fact is scored: the four factors, their explanation, calibration, spot scores."""
