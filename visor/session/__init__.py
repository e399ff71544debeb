"""Where a run happens: open the device, run the engine on it, feed the reports, produce the outcome."""
