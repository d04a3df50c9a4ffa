"""The teaching tools: what the tape did, drawn and narrated; they read the tape, never change it.

Layer L5: viz.py (the tape as a drawing: `tg.viz`; layout.py keeps big drawings readable),
explain.py and explain_html.py (the backward pass step by step, as text and as a notebook table:
`tg.explain`), tapeinfo.py (what both read off the tape: names, values, scopes, each node's
incoming gradient), mathtree.py (a rule's text read as mathematical notation: the one
translator), latex.py and mathml.py (that notation spelled as LaTeX and as MathML),
formula_html.py (formula()'s text, which a notebook shows typeset; these four are standard
library only, so `tg.autograd.formula` imports them), grouping.py (a composite call folded into
one step), compare.py (`tg.autograd.compare`). This file imports none of them: `tg.autograd`
reaches latex.py without loading the drawing code.
"""
