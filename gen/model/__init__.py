"""The results contract: schema and migrations, set layout, variant and scenario declarations.

Standard library only: runs on the GPU machine."""
