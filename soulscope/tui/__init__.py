"""The Textual dashboard: the only package of soulscope that imports Textual."""
