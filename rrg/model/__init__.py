"""Embedding models: the registry of installed models, the ONNX encoder, the static token
table distilled from it, and importing sentence-transformers models."""
