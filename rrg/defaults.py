"""The defaults of rrg's options, in one place: the command line's option table
(``rrg.cli.options``) and the library (``rrg.api``) both read them. Plain data, no imports:
the pass-through path reads the option table."""

#: Matching lines (or passages, without a pattern) a relevance search prints (--limit).
LINE_CAP = 30
#: Files the transformer stage re-orders through their best passages (--cascade). 12-32
#: swept at the stage's budget on semble-code's dev half: 20 the best mean of source folders
#: and whole (docs/benchmarks.md, "The files the stage re-orders").
STAGE_FILES = 20
#: Characters kept around a long line's match in a pipe (--excerpt).
EXCERPT = 1000
#: Matches collected for --rerank (--pool).
POOL = 500
#: Paths kept in a --recall scope file (--scope-size).
SCOPE_SIZE = 10_000
#: Entry-point passages --recall shows (--paragraphs).
PARAGRAPHS = 10
