"""Lexical evidence: how much a stored text's words say that it answers a prompt.

Pure functions shared by the local store (its whole ranking) and the recall of an embedding
server (the agreement a moderate semantic score needs, ``recall/calibrate.py``): search terms
(``text``), how common a word is outside any store (``common``), English-Chinese work words
(``glossary``) and the evidence itself (``evidence``). Apart from the store, so a prompt on
an OpenViking server imports neither SQLite nor the store to weigh its candidates.
"""
