"""Other frameworks' spellings on tapegrad's one tape, so their users' programs run unchanged.

Layer L5: mindspore.py (GradOperation, ParameterTuple, set_context), mindspore_ops.py (class-style
ops: `ops.Sin()(x)`), cell_bprop.py (a Cell's own `bprop`), mindspore_optimizers.py (MindSpore's
`nn.SGD`, `nn.Momentum`, `nn.Adam`), gradient_tape.py (TensorFlow's GradientTape). This file
imports none of them (nn imports cell_bprop.py and mindspore_optimizers.py, and mindspore.py
imports nn): `tg`, `tg.ops` and `tg.nn` re-export their names.
"""
