"""``python -m schedlab`` runs the command line."""

from schedlab.cli.app import main

main()
