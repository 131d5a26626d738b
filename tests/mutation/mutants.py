"""The mutants of tests/mutation/mutate.py: each a single realistic mistake, the meson tests
that must catch it, and (only where a mutant cannot change any result) why it is equivalent.

id:       area.what
file:     the file, from the project root
find:     text that occurs exactly once in it
replace:  what it becomes
tests:    meson test names to run
gpu:      True for mutants only a GPU run can catch
what:     the mistake, in words

The list is kept in two parts, each under a layer file's ~650 lines: mutants_numerics.py (the
oracle, formats, bound classes, measurement, run loop, gate, corpus, distributions, CPU and GPU
kernels, the GPU oracle, the row operations) and mutants_surfaces.py (attention, check, the
Python package, docs, reporters, layers, invariance, containment, quantization, reliability).
A new mutant goes into the part, and the section of it, of the code it breaks.
"""
from mutants_numerics import NUMERICS  # noqa: E402
from mutants_surfaces import SURFACES  # noqa: E402

MUTANTS = NUMERICS + SURFACES
