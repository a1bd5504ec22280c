"""One module per command on a checkout's changes since a baseline: `ws baseline`, `ws changes`, `ws diff`, `ws
cat`, `ws fingerprint`, `ws run`, `ws watch`, `ws status`."""
