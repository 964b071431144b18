import CGtk

// Placeholder until the overlay lands: proves GTK + gtk-layer-shell import.
g_set_prgname("blocker-overlay")
print("blocker-overlay: gtk-layer-shell supported = \(gtk_layer_is_supported() != 0)")
