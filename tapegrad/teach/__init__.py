"""The teaching tools: what the tape did, drawn and narrated; they read the tape, never change it.

Layer L5: viz.py (the tape as a drawing: `tg.viz`), explain.py and explain_html.py (the backward
pass step by step, as text and as a notebook table: `tg.explain`), tapeinfo.py (what both read off
the tape: names, values, scopes, each node's incoming gradient), latex.py (a rule's text as LaTeX;
standard library only, so `tg.autograd.formula` imports it too). This file imports none of them:
`tg.autograd` reaches latex.py without loading the drawing code.
"""
