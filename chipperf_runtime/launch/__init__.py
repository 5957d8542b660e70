"""The helpers a rank launcher runs inside a container: rankexec, spawn, quickexit, detach."""
