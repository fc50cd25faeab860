import os

from hypothesis import settings

# Kernels are fast but the first call of a test may page in large arrays.
settings.register_profile("animcore", deadline=None, max_examples=60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "animcore"))
