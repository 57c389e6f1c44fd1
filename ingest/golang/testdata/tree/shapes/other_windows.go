package shapes

func windowsOnly() {}
