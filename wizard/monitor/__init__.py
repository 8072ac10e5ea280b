"""Monitor: a live nvidia-smi-style view of the GPUs and the host.

`model` holds the samples and the source protocols; `nvml_source` reads NVML, `host` reads psutil,
`sim` plays a demo profile's GPUs; `sampler.make_sampler(profile)` picks one; `view` formats fields.
"""
