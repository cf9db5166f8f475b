"""Judge kernels: agreement with human labels and the judge's own biases (position,
verbosity, self-consistency of sampled generations)."""
