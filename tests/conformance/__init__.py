"""Conformance with PyTorch on PyTorch's own test inputs (OpInfo, ModuleInfo, OptimizerInfo).

test_conformance.py is the test; report.py prints the table per entry. The other modules: databases
(loading PyTorch's), mapping (OpInfo name -> tapegrad), translate (values across), verdicts (how a
result or an error is judged), run_ops / run_modules / run_optimizers, deliberate (the differences
kept on purpose, with their reasons).
"""
