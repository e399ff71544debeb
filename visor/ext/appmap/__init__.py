"""The app map: screens and the taps between them, learnt from runs, discover and crawls; routes over it."""
