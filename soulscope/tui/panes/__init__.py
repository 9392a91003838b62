"""The dashboard's tabs: each module holds one ``Pane`` (see ``soulscope.tui.app`` for the contract)."""
