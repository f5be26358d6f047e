"""The study card: its copy and the designOutline() exercise."""
