"""The simulated device: app models, their behaviour, layout and rendering."""
