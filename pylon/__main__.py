from pylon.cli.entry import pylon_main

pylon_main()
