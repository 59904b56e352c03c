"""The usage guide printed by ``rrg --agent-guide``, for an LLM agent's system prompt."""

from __future__ import annotations


def agent_guide() -> str:
    """The guide, its figures read from the ranking's chosen constants (not restated by
    hand: the guide said 32 passages where the option help read the constant)."""
    from rrg.rank.tuning import TUNING

    return AGENT_GUIDE.format(passages=TUNING.stage_passages)


#: A template: ``{passages}`` is filled by ``agent_guide``.
AGENT_GUIDE = """\
# rrg: search a corpus in relevance order (a drop-in for rg)

rrg ARGS with no rrg option is exactly rg. rrg's own options:
  -q "QUESTION"      rank files by the question; rg then prints matches best files first
  --recall "QUESTION" write a scope file (ranked paths) and show entry-point paragraphs
  --scope-file FILE  search the files of a scope, in its order
  --rerank           re-order the matching lines themselves by the question
  --limit N          matching lines shown (matches with -o; default 30; 0 = all)
Note: -q is rrg's query, not rg's quiet mode (that is --quiet).

## Protocol
1. Start with recall on the question itself:
     rrg --recall "who designed the clinic on Link Road in 1958"
   It prints: "QUESTION" → /path/scope-N.txt (K docs), then paragraphs as
     path:
     Line S-E: text
   Read the entry points first: they often hold the answer or the names to grep for.
2. Search inside the scope with precise patterns (rg regex syntax, -i for case):
     rrg --scope-file /path/scope-N.txt -i 'Copacabana|Link Road|1958'
   Output is rg's: path:text (add -n for line numbers). Best files come first.
3. For a one-answer question, rerank the matching lines:
     rrg --scope-file /path/scope-N.txt --rerank -i 'clinic|architect'
   Skip --rerank for broad recall (listing every X): it narrows what you see.
4. Read around a hit with plain rg flags:
     rrg -n -C 3 'Link Road' path/to/file.txt
5. When an angle is exhausted (notices say the cap was reached and results drift off
   topic), recall again with a reformulated question: each recall gets its own numbered
   scope file, so earlier scopes stay usable.

## Notices (stderr, one bracketed line each)
  [rrg: stopped at --limit 30; more matches may follow: ...]  more exist: narrow the
      pattern or raise --limit
  [rrg: reranked top 30 of 500 matches]                      rerank happened
  [rrg: N paths of scope-K.txt no longer exist; skipped]
Lines longer than 1000 characters are cut around the match and marked [...].
Exit codes follow rg: 0 matches, 1 none, 2 error (message starts with rrg: or rg:).

## Tips
- Quote the question; keep patterns short alternations of distinctive words.
- Each file first shows one line, the match in its passage that answers best (-m N: its
  first N); -l and --files list files best first; with no pattern, the best passages.
- A machine's first search prepares the model (10-30 s, once); stopped, run it again.
- A new question costs up to a second (the model reads {passages} passages; less once the job
  below is done and rrg's resident process is up); add --fast for a cheaper order (BM25
  and static vectors only) when many quick searches matter more.
- The same question asked again, with another pattern, costs a fraction of that (about
  0.25 s on 2,000 files): what the model read for it is kept. Vary the pattern, keep the
  question word for word.
- In code, put the words of a module's or file's name in the question when you know them
  ("latex printer", "autodoc"): the words of each file's path count on their own, so the
  files they name come first.
- An identifier as the question (Owner.method too) puts its definition first; a pasted
  error, log line or "quoted phrase", the files holding it; a path or module, its files.
- The first search of a project of 200 files or more starts one background job (nice'd,
  once) that cuts its files into passages and scores what it can of them ahead, and embeds
  a project of up to 60,000 passages (RRG_EMBED_AHEAD): new questions cost less once it is
  done (rrg --index-status says; RRG_PASSAGES_AHEAD=0 turns it off).
- A project embedded (by that job, or rrg --index --embed) answers new questions without
  reading its passages again. MCP hosts can run rrg --mcp PATH instead of a shell.
"""
