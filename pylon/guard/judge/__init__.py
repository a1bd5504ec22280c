"""The judge: a command's whole reading (classify), the rules that route each simple command to its
family in guard/commands/, and what a command reads and writes (reading). Above both the guard's
core (model, words, walk, verdict, ...) and the families, so neither imports it."""
