"""The two hosts' dialects: payloads read into one Event, replies shaped by each host's rules."""
