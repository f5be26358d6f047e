"""The study card: its copy, the designOutline() exercise and its route (`routes`)."""
