"""The app's Streamlit glue: navigation list, session state, controls and cached calls."""
