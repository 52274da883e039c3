from benchmarks.run import TUNED_ON, SEALED, labelled_homes_section, heldout_section
homes, figures = labelled_homes_section([*TUNED_ON, *SEALED])
print(homes)
print(heldout_section())
