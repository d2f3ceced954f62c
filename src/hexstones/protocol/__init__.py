"""Engine protocols: a GTP engine (:mod:`.gtp`) and a match runner for GTP engines (:mod:`.match`)."""
