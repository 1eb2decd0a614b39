"""The app's view models: pure data for each page, no Streamlit and no plotly.

``explorer`` (the Stream explorer), ``cifar`` (the CIFAR-10-CD interest process and thumbnails),
``reproduction`` (the results store's groups and their reports), ``illustration`` (the proofs of
Theorems 1 and 2 and Fig. 1) and ``course`` (the lessons and their questions).
``pudd_core.plots`` draws what these return; ``ui`` caches them.
"""
