"""Choose: which TensorFlow x Python x CUDA x cuDNN set fits this machine, and why the others do not.

`knowledge` loads the sourced tables, `choice` holds the resulting types, `resolver.recommend(profile)`
ranks the candidates.
"""
