"""Reading host transcripts incrementally and turning their records into Turns."""
