from synapse_tui.cli import main

main(prog_name="synapse-tui")
