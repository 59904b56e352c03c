"""What rrg keeps on disk per searched root: the SQLite index (refreshed by stat and content
hash, packed into arrays), the transformer vector cache, scope files, and their bounds."""
