"""The HTTP server: the app factory is `api.app.create_app`; importing a module of this package
builds nothing (no services, no app)."""
