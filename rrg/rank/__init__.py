"""Relevance: scoring files (BM25, static vectors, fusion; pure), ordering the candidates,
paragraphs and entry points, pattern keywords, and the match rerank."""
