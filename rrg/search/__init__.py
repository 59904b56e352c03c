"""The query pipeline: one typed plan, then candidates -> order -> stream -> rerank -> render.

``rrg.cli`` parses the command line and builds a ``QueryPlan`` (``plan.py``); the commands
(``commands.py``) run its stages: the files rg would search, ranked against the query
(``candidates.py``), rg streamed over them in that order (``stream.py``), optionally the
matches reranked (``reranked.py``). Every byte for standard output goes through
``rrg.output``.
"""
