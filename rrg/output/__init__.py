"""What rrg prints beside rg's own bytes: matches in rg's formats (for score order), long
lines cut around their match, notices, and the indexing progress bar."""
