"""Plain-Python versions of the rules, kept only as test oracles for the compiled core
(hexstones.core), which is where the games' rules live."""
