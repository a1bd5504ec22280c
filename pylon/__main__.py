from pylon.cli.main import pylon

pylon()
