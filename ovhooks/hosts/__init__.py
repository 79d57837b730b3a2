"""Every host's dialect: payloads read into one Event, replies shaped by each host's rules."""
