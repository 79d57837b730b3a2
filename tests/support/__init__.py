"""Test support code: fakes, stubs and fixtures shared by the test suite."""
