"""What rrg keeps on disk per searched root: the index (a SQLite registry of immutable,
memory-mapped segments, refreshed by stat; an edit adds a segment, segments merge in tiers),
the vector cache, scope files, and their bounds."""
