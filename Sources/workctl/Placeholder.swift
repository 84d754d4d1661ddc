// placeholder so the package resolves while this module is written
